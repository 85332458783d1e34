// Translates node-postgres errors (SQLSTATE codes, broken connections) into Spindle's core errors.
import { DuplicateError, NotFoundError, SpindleError, StoreError } from '@spindle/core'

const retryableStates = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57P01', // admin_shutdown (pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '53000', // insufficient_resources
])

const connectionErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])

/** The SQLSTATE of a pg error, when it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** True for errors worth retrying: serialization failures, deadlocks, terminated or refused connections. */
export function isRetryablePostgresError(error: unknown): boolean {
  const state = sqlState(error)
  if (state !== undefined) return retryableStates.has(state) || state.startsWith('08')
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && connectionErrorCodes.has(code)) return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message)
}

/**
 * Maps any error thrown by pg into a SpindleError; Spindle errors pass through unchanged.
 *
 * @example
 * try { await pool.query(sql) } catch (error) { throw mapPostgresError(error, 'creating run "r1"') }
 */
export function mapPostgresError(error: unknown, action: string): SpindleError {
  if (SpindleError.isInstance(error)) return error
  const state = sqlState(error)
  const detail = error instanceof Error ? error.message : String(error)
  const details = state === undefined ? undefined : { sqlState: state, constraint: (error as { constraint?: string }).constraint }
  if (state === '23505') {
    return new DuplicateError(`[spindle/store-postgres] ${action} failed: the record already exists (${detail})`, { cause: error, details })
  }
  if (state === '23503') {
    return new NotFoundError(`[spindle/store-postgres] ${action} failed: it refers to a record that does not exist (${detail})`, { cause: error, details })
  }
  if (state === '42P01' || state === '3F000') {
    return new StoreError(
      `[spindle/store-postgres] ${action} failed: the Spindle tables are missing (${detail}); run migrate() or install the postgresStores() plugin before using the stores`,
      { cause: error, details },
    )
  }
  if (isRetryablePostgresError(error)) {
    return new StoreError(`[spindle/store-postgres] ${action} failed on a transient database condition (${detail}); retry the operation`, {
      cause: error,
      isRetryable: true,
      details,
    })
  }
  return new StoreError(`[spindle/store-postgres] ${action} failed: ${detail}`, { cause: error, details })
}
