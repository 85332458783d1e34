// Public entry of @spindle/tools-web.
export { httpFetch, type HttpFetchInput, type HttpFetchOptions, type HttpFetchResult } from './http-fetch.js'
export { webPage, type WebPageOptions, type WebPageResult } from './web-page.js'
export { webTools, type WebToolsOptions } from './web-tools.js'
export { guardedFetch, type GuardedFetchOptions, type GuardedRequest, type GuardedResponse } from './guarded-fetch.js'
export { vetUrl, hostAllowed, type LookupFunction, type ResolvedAddress, type UrlGuardOptions, type VettedTarget } from './url-guard.js'
export { blockedAddressReason, addressInCidr } from './ip-address.js'
export { htmlToText, decodeEntities, type ReadableLink, type ReadablePage } from './html-to-text.js'
export { WebToolError, type WebToolErrorCode } from './web-tool-error.js'
