/**
 * The gateway's answers as the web app reads them: the server's own module, shared with the routes that build
 * them (types only, erased from the bundle). Pages import them from here.
 */
export type * from '../../src/gateway/api-types';
