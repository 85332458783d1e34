// RunError: why a run failed, as a program can act on it (run records, RunOutput, run.failed / run.finished events).

/**
 * Why a run ended with an error. `code` says what failed; `status`, `retryable` and `provider` are set when known.
 *
 * Codes the runtime writes (a run may also carry the `code` of any other `SpindleError` that ended it):
 * - `provider_auth`: the provider refused the credentials (HTTP 401 / 403);
 * - `provider_rate_limit`: rate limited (429) after the provider's own retries;
 * - `provider_overloaded`: the provider is overloaded (529, 503, an in-band `overloaded_error`);
 * - `provider_server`: another 5xx;
 * - `provider_bad_request`: the provider refused the request (another 4xx: 400, 404, 413, 422…);
 * - `provider_timeout`: the provider did not answer in time (408, a first-chunk timeout);
 * - `provider_unreachable`: the provider could not be reached (connection refused, DNS, TLS);
 * - `stream_interrupted`: a stream was cut before its end (after the provider's retries);
 * - `provider`: any other provider failure (the model finished with an error);
 * - `context_length`: the request did not fit the model's context window, even after compacting;
 * - `context_adapter`: a context adapter threw (the message names it);
 * - `timeout`: the run passed `policy.runTimeoutMs`; `cancelled`: it was aborted;
 * - `tool`, `store`, `policy_violation`, `doom_loop`, `budget`…: the SpindleError code of what stopped it;
 * - `error`: anything else (a plain `Error` thrown by user code).
 *
 * @example
 * if (output.error?.code === 'provider_rate_limit' && output.error.retryable) setTimeout(retry, 60_000)
 */
export interface RunError {
  code: string
  /** Redacted like every stored text. */
  message: string
  /** The provider's HTTP status (or the status an in-band error stands for). */
  status?: number
  /** Whether the same request may succeed later (a 429, a 5xx, a timeout); `false` for a 401 or a bad request. */
  retryable?: boolean
  /** The provider that failed (`openai`, `anthropic`…), for provider errors. */
  provider?: string
}
