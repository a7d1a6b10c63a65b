import type { DingtalkConfig } from './dingtalk-config.js';

const CALL_DEADLINE_MS = 30_000;
/** A token is renewed this long before DingTalk says it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** A refusal from DingTalk: `status` (HTTP) lets `retrying` wait out a 429 or 5xx. */
export class DingtalkApiError extends Error {
  override readonly name = 'DingtalkApiError';

  constructor(
    what: string,
    readonly status: number,
    code?: unknown,
  ) {
    super(`DingTalk ${what} answered ${status}${typeof code === 'string' ? ` (${code.slice(0, 80)})` : ''}`);
  }
}

/** A robot message as the OpenAPI sends it: a message template and its parameters. */
export interface RobotMessage {
  msgKey: 'sampleText' | 'sampleMarkdown' | 'sampleImageMsg' | 'sampleFile';
  msgParam: Record<string, string>;
}

/**
 * Group conversation ids start with `cid`; any other chat id is a person's staff id (their direct chat
 * with the robot).
 */
export function isGroupChat(chatId: string): boolean {
  return chatId.startsWith('cid');
}

/**
 * The DingTalk OpenAPI calls the channel makes, each with a 30 s deadline: the app's access token (cached
 * until shortly before it expires), robot sends to a person or a group, session-webhook replies, the
 * download address of a received file, and media uploads. The config is read per call.
 */
export class DingtalkApi {
  private token: { value: Promise<string>; expires: number } | undefined;

  constructor(private readonly config: () => DingtalkConfig) {}

  private async call(what: string, url: string, init: RequestInit): Promise<Record<string, unknown>> {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(CALL_DEADLINE_MS) });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new DingtalkApiError(what, response.status, body['code']);
    // The older APIs (webhooks, media) answer 200 with an errcode.
    if (typeof body['errcode'] === 'number' && body['errcode'] !== 0)
      throw new DingtalkApiError(what, response.status, String(body['errcode']));
    return body;
  }

  private post(what: string, path: string, body: unknown, token?: string) {
    return this.call(what, `${this.config().apiUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { 'x-acs-dingtalk-access-token': token } : {}),
      },
      body: JSON.stringify(body),
    });
  }

  /** The app's access token; a failed fetch is not cached. */
  accessToken(): Promise<string> {
    const now = Date.now();
    if (this.token && this.token.expires > now) return this.token.value;
    const { clientId, clientSecret } = this.config();
    const value = this.post('access token', '/v1.0/oauth2/accessToken', {
      appKey: clientId,
      appSecret: clientSecret,
    }).then((body) => {
      const token = body['accessToken'];
      if (typeof token !== 'string' || !token) throw new Error('DingTalk answered without an access token');
      const lifetime = Number(body['expireIn'] ?? 7200) * 1000;
      if (this.token?.value === value) this.token.expires = now + Math.max(0, lifetime - TOKEN_MARGIN_MS);
      return token;
    });
    this.token = { value, expires: now + 60_000 };
    value.catch(() => {
      if (this.token?.value === value) this.token = undefined;
    });
    return value;
  }

  /** Sends a robot message to a person (by staff id) or a group (by conversation id). */
  async send(chatId: string, message: RobotMessage): Promise<void> {
    const token = await this.accessToken();
    const { robotCode } = this.config();
    const msgParam = JSON.stringify(message.msgParam);
    if (isGroupChat(chatId))
      await this.post(
        'group send',
        '/v1.0/robot/groupMessages/send',
        { robotCode, openConversationId: chatId, msgKey: message.msgKey, msgParam },
        token,
      );
    else
      await this.post(
        'direct send',
        '/v1.0/robot/oToMessages/batchSend',
        { robotCode, userIds: [chatId], msgKey: message.msgKey, msgParam },
        token,
      );
  }

  /** Replies through a conversation's session webhook (no token needed while it is valid). */
  async webhook(url: string, body: unknown): Promise<void> {
    await this.call('session webhook', url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** Where the bytes of a received picture or file can be fetched (a short-lived address). */
  async downloadUrl(downloadCode: string): Promise<string> {
    const token = await this.accessToken();
    const body = await this.post(
      'file download',
      '/v1.0/robot/messageFiles/download',
      { downloadCode, robotCode: this.config().robotCode },
      token,
    );
    const url = body['downloadUrl'];
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new Error('DingTalk answered without a download address');
    return url;
  }

  /** Uploads a file for a robot message; returns its media id. */
  async upload(bytes: Buffer, name: string, type: 'image' | 'file'): Promise<string> {
    const token = await this.accessToken();
    const form = new FormData();
    form.append('media', new Blob([bytes]), name);
    const url = `${this.config().oapiUrl}/media/upload?access_token=${encodeURIComponent(token)}&type=${type}`;
    const body = await this.call('media upload', url, { method: 'POST', body: form });
    const mediaId = body['media_id'];
    if (typeof mediaId !== 'string' || !mediaId) throw new Error('DingTalk answered without a media id');
    return mediaId;
  }
}
