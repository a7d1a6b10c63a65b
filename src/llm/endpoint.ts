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
}
