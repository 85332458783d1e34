// The promise form of a call that may complete synchronously (the `…Now()` methods): the promise API of
// `build()`, `commit()` and `executeCalls()` on top of their synchronous-when-possible counterparts.

/** `compute()` as a promise: a value resolved, a promise as it is, a synchronous throw as a rejection. */
export function asPromise<T>(compute: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(compute())
  } catch (error) {
    return Promise.reject(error)
  }
}
