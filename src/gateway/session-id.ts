/** What the API accepts as a session id (1-128 letters, digits, `_ . : -`, not starting with a sign). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
