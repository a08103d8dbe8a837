// Structured JSON logs (pino) for workers and the service: one object a line, with research_id on
// everything a session's workflow or activities log. Temporal's own logs (SDK, Core) come through
// the same logger. LOG_LEVEL sets the level (trace, debug, info, warn, error; info by default).
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import pino, { type Logger } from 'pino';

const LEVELS: Record<LogLevel, pino.Level> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** A logger at `level` (config.environment.telemetry.log_level); an unknown level logs at info. */
export function createLogger(name: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: Object.values(LEVELS).includes(level as pino.Level) ? level : 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** "research-abc" → "abc": the research id a workflow id belongs to (undefined for other workflows). */
export function researchIdOf(workflowId: unknown): string | undefined {
  if (typeof workflowId !== 'string') return undefined;
  const match = /^research-(.+)$/.exec(workflowId);
  return match?.[1];
}

/** Temporal's Logger interface over pino, adding research_id from the workflow id Temporal attaches. */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    const researchId = researchIdOf(meta.workflowId);
    const fields = researchId ? { research_id: researchId, ...meta } : meta;
    this.logger[LEVELS[level] ?? 'info'](fields, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
