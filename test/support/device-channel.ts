import type { OutboundMessage } from '../../src/bus/messages.js';
import type { Channel, ChannelStatus, LinkRequest } from '../../src/channels/channel.js';

/**
 * A linked-device channel (as WhatsApp is) that a test drives from outside: `offer` shows a QR or pairing
 * code, `become` moves it to a state, as the platform's events would. It records what the gateway's routes
 * asked of it (`requests`, `unlinked`) and what it was asked to send.
 */
export class DeviceChannel implements Channel {
  readonly name = 'whatsapp';
  readonly requests: LinkRequest[] = [];
  readonly sent: OutboundMessage[] = [];
  unlinked = 0;
  private current: ChannelStatus;

  constructor(initial: ChannelStatus['state'] = 'logged-out') {
    this.current = { name: this.name, state: initial, since: Date.now() };
  }

  async start() {}
  async stop() {}
  async send(message: OutboundMessage) {
    this.sent.push(message);
  }
  status() {
    return this.current;
  }
  ownerChat() {
    return this.current.state === 'connected' ? '+4915112345678' : undefined;
  }
  async link(request: LinkRequest) {
    this.requests.push(request);
    this.current = { name: this.name, state: 'linking', since: Date.now() };
  }
  async unlink() {
    this.unlinked += 1;
    this.become('logged-out', 'unlinked by the owner');
  }
  offer(link: ChannelStatus['link']) {
    this.current = { name: this.name, state: 'linking', since: Date.now(), ...(link ? { link } : {}) };
  }
  become(state: ChannelStatus['state'], detail?: string) {
    this.current = { name: this.name, state, since: Date.now(), ...(detail ? { detail } : {}) };
  }
  /** Back to a fresh state for the next test (each test also runs alone). */
  reset(state: ChannelStatus['state'] = 'logged-out') {
    this.requests.length = 0;
    this.sent.length = 0;
    this.unlinked = 0;
    this.become(state);
  }
}

/** A token platform (no linking), connected, whose sends a test can refuse with `refuse`. */
export class TokenChannel implements Channel {
  readonly name = 'telegram';
  readonly sent: OutboundMessage[] = [];
  refuse: string | undefined;
  async start() {}
  async stop() {}
  async send(message: OutboundMessage) {
    if (this.refuse) throw new Error(this.refuse);
    this.sent.push(message);
  }
  status(): ChannelStatus {
    return { name: this.name, state: 'connected', since: Date.now() };
  }
  ownerChat() {
    return '42';
  }
}
