/** One configured model endpoint, fully resolved (presets applied, `${VAR}`s interpolated). */
export type Protocol = 'openai' | 'anthropic' | 'gemini';

export interface EndpointConfig {
  /** Unique, user-chosen name; used in logs, errors and cool-down bookkeeping. */
  name: string;
  protocol: Protocol;
  /** Base URL up to the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Resolved secret; never logged or shown. Local servers may need none. */
  apiKey?: string;
  model: string;
  tags: string[];
  /** Lower is tried first. */
  priority: number;
  contextWindow: number;
  maxOutputTokens: number;
  enabled: boolean;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Per-request deadline in milliseconds (connect + full response). */
  timeoutMs: number;
  /** Whether user content may carry images. */
  vision: boolean;
  /**
   * Set for GitHub Copilot (`provider: copilot`): `apiKey` is then the long-lived GitHub token, which is
   * exchanged for short-lived Copilot API tokens before chat calls (see copilot-token-source.ts).
   */
  copilot?: CopilotAuth;
}

/** How a Copilot endpoint gets its API tokens. */
export interface CopilotAuth {
  /** The token exchange (`GET`, `Authorization: token <github token>`), e.g. `https://api.github.com/copilot_internal/v2/token`. */
  tokenUrl: string;
  /**
   * Send chat calls to the API base the exchange names (`endpoints.api`, which differs for business and
   * enterprise seats) instead of `baseUrl`; false when the user set `base_url` explicitly.
   */
  useTokenApiBase: boolean;
}
