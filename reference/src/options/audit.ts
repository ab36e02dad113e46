// --audit-*: the log, its format and rotation, and the policy (read now: an invalid one is refused).
import { resolve } from 'node:path';
import { loadAuditPolicyFile } from '../audit/policy.ts';
import { AUDIT_LOG_FORMATS, type AuditLogFormat } from '../audit/sinks.ts';
import { asUsageError, fileFlag, intFlag, type OptionSection, UsageError } from './flags.ts';

export const auditOptions: OptionSection = {
  flags: {
    'audit-log-path': { type: 'string' },
    'audit-policy-file': { type: 'string' },
    'audit-log-format': { type: 'string' },
    'audit-log-maxsize': { type: 'string' },
    'audit-log-maxbackup': { type: 'string' },
    'audit-log-maxage': { type: 'string' },
    'audit-log-compress': { type: 'boolean' },
  },
  usage: `  --audit-log-path PATH      write audit events to PATH, one a line, appended ('-': standard
                             output); which requests and stages: --audit-policy-file
  --audit-policy-file FILE   audit.orch.io/v1 Policy (YAML or JSON): rules in order, the first
                             that matches gives the level (None, Metadata, Request,
                             RequestResponse) and the stages left out; an invalid policy stops
                             the start. Without one: every request at Metadata, one event when
                             its response is complete
  --audit-log-format F       json (default) or legacy (one line of text per event)
  --audit-log-maxsize MB     rotate the log before it grows past MB megabytes (0: 100)
  --audit-log-maxbackup N    rotated files kept, newest first (0: all)
  --audit-log-maxage DAYS    rotated files removed after DAYS days (0: never)
  --audit-log-compress       gzip rotated files
`,
  parse({ values, str, cwd, options }) {
    const audit = str('audit-log-path');
    if (audit !== undefined) {
      if (!audit.trim()) throw new UsageError('--audit-log-path: must not be empty');
      options.auditLogPath = audit === '-' ? '-' : resolve(cwd, audit);
    }
    const format = str('audit-log-format');
    if (format !== undefined) {
      if (!(AUDIT_LOG_FORMATS as readonly string[]).includes(format))
        throw new UsageError(
          `--audit-log-format: invalid audit log format "${format}", allowed formats are "${AUDIT_LOG_FORMATS.join(',')}"`,
        );
      options.auditLogFormat = format as AuditLogFormat;
    }
    const max = 1_000_000;
    const size = intFlag('audit-log-maxsize', str('audit-log-maxsize'), 0, max);
    if (size !== undefined) options.auditLogMaxSize = size;
    const backups = intFlag('audit-log-maxbackup', str('audit-log-maxbackup'), 0, max);
    if (backups !== undefined) options.auditLogMaxBackup = backups;
    const age = intFlag('audit-log-maxage', str('audit-log-maxage'), 0, max);
    if (age !== undefined) options.auditLogMaxAge = age;
    if (values['audit-log-compress']) options.auditLogCompress = true;
    const policy = str('audit-policy-file');
    if (policy !== undefined) {
      const file = fileFlag('audit-policy-file', policy, cwd);
      options.auditPolicyFile = file;
      asUsageError('', () => loadAuditPolicyFile(file, () => {}));
    }
  },
};
