import type {
  AuthenticationCreds,
  AuthenticationState,
  SignalDataSet,
  SignalDataTypeMap,
} from '@whiskeysockets/baileys';
import { SealError, seal, unseal } from '../../util/seal.js';
import type { ChannelLedger } from '../channel-ledger.js';

/** The parts of Baileys the auth state needs (taken from the SDK module the channel imported). */
export interface AuthStateSdk {
  initAuthCreds(): AuthenticationCreds;
  BufferJSON: {
    replacer(key: string, value: unknown): unknown;
    reviver(key: string, value: unknown): unknown;
  };
  proto: { Message: { AppStateSyncKeyData: { fromObject(value: object): unknown } } };
}

/** The rows of one channel's session, under `auth:` in the channel's cursors. */
const PREFIX = 'auth:';
const CREDS = `${PREFIX}creds`;

export interface StoredAuthState {
  state: AuthenticationState;
  /**
   * Whether the session belongs to a linked device (false: link first). The signed device identity
   * (`account`) exists only once a QR scan or pairing code succeeded; a half-done pairing has `me` only.
   */
  registered(): boolean;
  /** Stores the credentials as Baileys changed them (`creds.update`). */
  saveCreds(): void;
  /** Forgets the whole session (logged out or unlinked); the next start links afresh. */
  clear(): void;
}

/**
 * A WhatsApp session kept in Wren's database rather than loose files: the credentials and every Signal key
 * (pre-keys, sessions, sender keys, app-state keys …) one row each in the channel's cursors, each sealed with
 * AES-256-GCM under the home's key (`WREN_SECRET_KEY` in `.env`) and bound to its row, so the database alone
 * (a backup, a copied file) reveals nothing and a row moved to another key does not open. A row that does not
 * open (another key) reads as absent: the session then starts as unlinked instead of crashing.
 */
export function storedAuthState(options: {
  ledger: ChannelLedger;
  channel: string;
  key: Uint8Array;
  sdk: AuthStateSdk;
  onError?: (error: unknown) => void;
}): StoredAuthState {
  const { ledger, channel, key, sdk } = options;
  const read = <T>(row: string): T | undefined => {
    const sealed = ledger.cursor(channel, row);
    if (sealed === undefined) return undefined;
    try {
      return JSON.parse(unseal(key, sealed, `${channel}:${row}`), sdk.BufferJSON.reviver) as T;
    } catch (error) {
      options.onError?.(
        error instanceof SealError
          ? new Error(`the stored ${channel} session does not open with WREN_SECRET_KEY (${error.message})`)
          : error,
      );
      return undefined;
    }
  };
  const write = (row: string, value: unknown) =>
    ledger.setCursor(
      channel,
      row,
      seal(key, JSON.stringify(value, sdk.BufferJSON.replacer), `${channel}:${row}`),
    );

  let creds = read<AuthenticationCreds>(CREDS) ?? sdk.initAuthCreds();
  const state: AuthenticationState = {
    get creds() {
      return creds;
    },
    set creds(next) {
      creds = next;
    },
    keys: {
      get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
        const found: { [id: string]: SignalDataTypeMap[T] } = {};
        for (const id of ids) {
          let value = read<SignalDataTypeMap[T]>(`${PREFIX}${type}:${id}`);
          if (value && type === 'app-state-sync-key')
            value = sdk.proto.Message.AppStateSyncKeyData.fromObject(value as object) as SignalDataTypeMap[T];
          if (value !== undefined) found[id] = value;
        }
        return found;
      },
      set: async (data: SignalDataSet) => {
        for (const [type, values] of Object.entries(data))
          for (const [id, value] of Object.entries(values ?? {})) {
            const row = `${PREFIX}${type}:${id}`;
            if (value) write(row, value);
            else ledger.deleteCursors(channel, { key: row });
          }
      },
      clear: async () => ledger.deleteCursors(channel, { prefix: PREFIX }),
    },
  };
  return {
    state,
    registered: () => !!creds.account && !!creds.me?.id,
    saveCreds: () => write(CREDS, creds),
    clear: () => {
      ledger.deleteCursors(channel, { prefix: PREFIX });
      creds = sdk.initAuthCreds();
    },
  };
}
