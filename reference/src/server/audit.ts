// Audit: the policy and the sinks (memory, log file). An audit policy or log that cannot be used
// stops the start before anything is opened.
import { loadAuditPolicyFile, PolicyEvaluator } from '../audit/policy.ts';
import { LogAuditSink, MemoryAuditSink } from '../audit/sinks.ts';
import type { AuditSink } from '../audit/types.ts';
import type { ServerOptions } from '../config.ts';

export interface AuditSetup {
  policy?: PolicyEvaluator;
  /** The events of the last requests (`auditInMemory` of them), when asked for. */
  memory?: MemoryAuditSink;
  sinks: AuditSink[];
}

export function wireAudit(options: ServerOptions): AuditSetup {
  const policy = options.auditPolicyFile
    ? new PolicyEvaluator(loadAuditPolicyFile(options.auditPolicyFile))
    : undefined;
  const memory = options.auditInMemory ? new MemoryAuditSink(options.auditInMemory) : undefined;
  const sinks: AuditSink[] = memory ? [memory] : [];
  if (options.auditLogPath)
    sinks.push(
      new LogAuditSink(options.auditLogPath, {
        format: options.auditLogFormat,
        maxSizeMB: options.auditLogMaxSize,
        maxBackups: options.auditLogMaxBackup,
        maxAgeDays: options.auditLogMaxAge,
        compress: options.auditLogCompress,
      }),
    );
  return { policy, memory, sinks };
}
