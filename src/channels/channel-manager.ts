import type { Channel, ChannelStatus } from './channel.js';

/**
 * The app's registry of faces: the terminal and the HTTP API register while they run; chat platforms are
 * started from config by `wren start`. Each channel runs on its own: one that fails to start (or later)
 * shows `failed` in the status and never stops the others.
 */
export class ChannelManager {
  private readonly channels = new Map<string, Channel>();
  private readonly controllers = new Map<string, AbortController>();

  constructor(private readonly onError: (channel: string, error: unknown) => void = () => {}) {}

  /**
   * Adds a running face (its owner starts it). Returns the undo.
   * @throws Error when a channel of that name is already registered.
   */
  register(channel: Channel): () => void {
    if (this.channels.has(channel.name)) throw new Error(`channel ${channel.name} is already registered`);
    this.channels.set(channel.name, channel);
    return () => {
      if (this.channels.get(channel.name) === channel) this.channels.delete(channel.name);
    };
  }

  /** Registers and starts `channel`; a start that throws is logged and leaves it `failed`, not the app. */
  launch(channel: Channel): void {
    this.register(channel);
    const controller = new AbortController();
    this.controllers.set(channel.name, controller);
    channel.start(controller.signal).catch((error: unknown) => this.onError(channel.name, error));
  }

  /** Stops and removes one launched channel (a config edit replaced it). */
  async stop(name: string): Promise<void> {
    const controller = this.controllers.get(name);
    if (!controller) return;
    controller.abort();
    this.controllers.delete(name);
    const channel = this.channels.get(name);
    this.channels.delete(name);
    await channel?.stop().catch((error: unknown) => this.onError(name, error));
  }

  get(name: string): Channel | undefined {
    return this.channels.get(name);
  }

  /** The owner's chat on channel `name` (`cli`: the terminal; a platform: the first owner id's DM). */
  ownerChat(name: string): string | undefined {
    return this.channels.get(name)?.ownerChat?.();
  }

  names(): string[] {
    return [...this.channels.keys()];
  }

  /** Each channel's status; `linkable` marks those that link by device, so the web app can offer Link. */
  status(): ChannelStatus[] {
    return [...this.channels.values()].map((channel) =>
      channel.link ? { ...channel.status(), linkable: true } : channel.status(),
    );
  }

  /** Stops every launched channel (each on its own: one that hangs or throws does not hold the rest). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.controllers.keys()].map((name) => this.stop(name)));
  }
}
