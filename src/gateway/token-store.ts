/** Where the gateway token's hash and the browser sessions are kept between runs (the settings store). */
export interface TokenStore {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}
