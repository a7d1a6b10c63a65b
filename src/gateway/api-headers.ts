import { secureHeaders } from 'hono/secure-headers';

/**
 * Middleware for every `/api/*` answer, errors and downloads included: `X-Content-Type-Options: nosniff` (a
 * browser never reads a JSON answer or a downloaded file as script or style) and `Cross-Origin-Resource-Policy:
 * same-origin` (a page of another origin — another port on this machine is one — cannot embed
 * `<img src=/api/files/…>` and have the browser load it with the owner's cookie). Only these two: the API
 * answers no pages, and the web app's own routes set their headers.
 */
export const apiHeaders = secureHeaders({
  xContentTypeOptions: 'nosniff',
  crossOriginResourcePolicy: 'same-origin',
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
});
