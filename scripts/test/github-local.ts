// A local run of one job of a GitHub Actions workflow, for testing the CI templates: its `run`
// steps run as written, in order, in bash as GitHub's runner starts them (`bash --noprofile
// --norc -eo pipefail`), with `${{ }}` expressions and `if:` conditions evaluated by GitHub's
// own expression library (@actions/expressions). The few marketplace actions the templates use
// are replaced by their local effect (the cache is a folder, an artifact upload a copy);
// reaching any other action fails the run, so nothing is silently left out. Written by hand
// because the runner that does this for real (`act`) needs Docker, which this machine lacks.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import { parse } from 'yaml';

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface LocalJobOptions {
  /** The working copy: the checkout the job runs in. */
  cwd: string;
  vars?: Record<string, string>;
  secrets?: Record<string, string>;
  github: { run_number: number; run_id: string; ref_name: string; sha: string; default_branch: string };
  /** Where actions/cache keeps its entries between runs. */
  cacheDir: string;
  /** Where uploaded artifacts go, a folder per artifact name. */
  artifactsDir: string;
  /** The environment of the runner (PATH and the like). */
  baseEnv?: NodeJS.ProcessEnv;
}

export interface LocalStep {
  name: string;
  ran: boolean;
  code: number;
  output: string;
}

export interface LocalJobRun {
  ok: boolean;
  steps: LocalStep[];
}

function toData(v: unknown): data.ExpressionData {
  if (v === null || v === undefined) return new data.Null();
  if (typeof v === 'string') return new data.StringData(v);
  if (typeof v === 'number') return new data.NumberData(v);
  if (typeof v === 'boolean') return new data.BooleanData(v);
  const d = new data.Dictionary();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) d.add(k, toData(x));
  return d;
}

function evaluate(expr: string, ctx: Record<string, unknown>, failed: boolean): data.ExpressionData {
  // the status functions belong to the runner, not to the expression library
  const text = expr
    .replace(/\balways\(\)/g, 'true')
    .replace(/\bsuccess\(\)/g, failed ? 'false' : 'true')
    .replace(/\bfailure\(\)/g, failed ? 'true' : 'false')
    .replace(/\bcancelled\(\)/g, 'false');
  const lexed = new Lexer(text).lex();
  const ast = new Parser(lexed.tokens, Object.keys(ctx), []).parse();
  return new Evaluator(ast, toData(ctx) as data.Dictionary).evaluate();
}

function asString(d: data.ExpressionData): string {
  if (d.kind === data.Kind.Null) return '';
  if (d.kind === data.Kind.String) return (d as data.StringData).value;
  if (d.kind === data.Kind.Number) return String((d as data.NumberData).value);
  if (d.kind === data.Kind.Boolean) return String((d as data.BooleanData).value);
  throw new Error('an expression in a string gave an object');
}

/** `${{ expr }}` replaced by the expression's value. */
function interpolate(s: string, ctx: Record<string, unknown>): string {
  return s.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, e: string) => asString(evaluate(e.trim(), ctx, false)));
}

function interpolateAll(o: Record<string, unknown> | undefined, ctx: Record<string, unknown>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o ?? {})) out[k] = interpolate(String(v), ctx);
  return out;
}

/** The condition of an `if:` (written with or without `${{ }}`; none means success()). */
function condition(expr: string | undefined, ctx: Record<string, unknown>, failed: boolean): boolean {
  const e = (expr ?? 'success()').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const v = evaluate(e, ctx, failed);
  return v.kind === data.Kind.Boolean ? (v as data.BooleanData).value : asString(v) !== '';
}

function newest(names: string[], path: (name: string) => string): string | undefined {
  return names.sort((a, b) => statSync(path(b)).mtimeMs - statSync(path(a)).mtimeMs)[0];
}

/** What the marketplace actions of the templates do, done locally. */
function runAction(uses: string, w: Record<string, string>, o: LocalJobOptions): string {
  const action = uses.replace(/@.*$/, '');
  const key = (k: string) => join(o.cacheDir, encodeURIComponent(k));
  switch (action) {
    case 'actions/checkout':
      return 'the working copy is the checkout';
    case 'actions/setup-node': {
      const major = process.versions.node.split('.')[0];
      if (w['node-version'] && w['node-version'] !== major)
        throw new Error(`setup-node asks for Node ${w['node-version']}; this machine has ${major}`);
      return `Node ${process.versions.node}`;
    }
    case 'actions/cache/restore': {
      mkdirSync(o.cacheDir, { recursive: true });
      const prefixes = (w['restore-keys'] ?? '')
        .split('\n')
        .map((x) => x.trim())
        .filter(Boolean);
      const names = readdirSync(o.cacheDir).map(decodeURIComponent);
      // the exact key, else the newest entry whose key starts with the first prefix that has one
      const hit = names.includes(w.key!)
        ? w.key!
        : prefixes
            .map((p) =>
              newest(
                names.filter((n) => n.startsWith(p)),
                key,
              ),
            )
            .find((n) => n !== undefined);
      if (hit === undefined) return 'no cache entry';
      cpSync(key(hit), join(o.cwd, w.path!), { recursive: true });
      return `restored ${hit}`;
    }
    case 'actions/cache/save': {
      if (existsSync(key(w.key!))) return `an entry ${w.key} exists`; // entries are immutable
      if (!existsSync(join(o.cwd, w.path!))) return `nothing at ${w.path}`;
      cpSync(join(o.cwd, w.path!), key(w.key!), { recursive: true });
      return `saved ${w.key}`;
    }
    case 'actions/upload-artifact':
    case 'actions/upload-pages-artifact': {
      const from = join(o.cwd, w.path!);
      if (!existsSync(from)) throw new Error(`${action}: nothing at ${w.path}`);
      cpSync(from, join(o.artifactsDir, w.name ?? 'github-pages'), { recursive: true });
      return `uploaded ${w.path}`;
    }
    default:
      throw new Error(`${uses} has no local counterpart: a local run cannot take this step`);
  }
}

export function runGithubJob(workflowFile: string, job: string, o: LocalJobOptions): LocalJobRun {
  const wf = parse(readFileSync(workflowFile, 'utf8')) as {
    env?: Record<string, string>;
    jobs: Record<string, { env?: Record<string, string>; steps: Step[] }>;
  };
  const j = wf.jobs[job];
  if (!j) throw new Error(`${workflowFile} has no job ${job}`);
  const github = { ...o.github, event: { repository: { default_branch: o.github.default_branch } } };
  const base = { vars: o.vars ?? {}, secrets: o.secrets ?? {}, github };
  const env: Record<string, string> = {};
  Object.assign(env, interpolateAll(wf.env, { ...base, env }));
  Object.assign(env, interpolateAll(j.env, { ...base, env }));
  const steps: LocalStep[] = [];
  let failed = false;
  for (const [i, step] of j.steps.entries()) {
    const name = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? `step ${i + 1}`;
    const ctx = { ...base, env };
    if (!condition(step.if, ctx, failed)) {
      steps.push({ name, ran: false, code: 0, output: '' });
      continue;
    }
    const stepEnv = { ...env, ...interpolateAll(step.env, ctx) };
    if (step.uses) {
      try {
        const out = runAction(step.uses, interpolateAll(step.with, { ...ctx, env: stepEnv }), o);
        steps.push({ name, ran: true, code: 0, output: out });
      } catch (e) {
        steps.push({ name, ran: true, code: 1, output: (e as Error).message });
        failed = true;
      }
      continue;
    }
    const script = interpolate(step.run ?? '', { ...ctx, env: stepEnv });
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: o.cwd,
      env: {
        ...(o.baseEnv ?? process.env),
        ...stepEnv,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_NUMBER: String(o.github.run_number),
        GITHUB_RUN_ID: o.github.run_id,
        GITHUB_REF_NAME: o.github.ref_name,
        GITHUB_SHA: o.github.sha,
        GITHUB_WORKSPACE: o.cwd,
      },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const code = r.status ?? 1;
    steps.push({ name, ran: true, code, output: `${r.stdout ?? ''}${r.stderr ?? ''}` });
    if (code !== 0) failed = true;
  }
  return { ok: !failed, steps };
}
