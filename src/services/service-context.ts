/** What every owner action may need of its surroundings besides storage: the time, the owner's zone, defaults. */
export interface ServiceContext {
  /** The clock (Unix ms). */
  now(): number;
  /** The owner's IANA zone in force (`agent.timezone`). */
  timezone(): string;
  /** Where proactive messages go when a request names no target (`proactive.deliver_to`, else the terminal). */
  defaultTargets(): readonly string[];
}
