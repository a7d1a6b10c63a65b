import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());

/**
 * `channels.matrix` (a Matrix account on any homeserver, client-server API):
 *
 * ```yaml
 * channels:
 *   matrix:
 *     homeserver: https://matrix.example.org
 *     access_token: ${MATRIX_ACCESS_TOKEN}   # or user + password
 *     owner: ['@me:example.org']
 * ```
 */
export const matrixSectionSchema = z
  .strictObject({
    enabled: flag.default(true),
    homeserver: z
      .string()
      .trim()
      .regex(/^https?:\/\//, 'the homeserver address, e.g. https://matrix.example.org'),
    access_token: z.string().trim().min(1).optional(),
    /** With `password`: a full user id (`@wren:example.org`) or the local part. */
    user: z.string().trim().min(1).optional(),
    password: z.string().min(1).optional(),
    ...channelAccessShape('Matrix', {
      pattern: /^@[^:\s]{1,255}:[A-Za-z0-9.:[\]-]{1,255}$/,
      explain: 'use the full Matrix user id, e.g. @me:example.org.',
    }),
    /** Tool progress streamed into the reply while it is worked on (`off`, `hints`, `full`). */
    progress: z.enum(['off', 'hints', 'full']).default('hints'),
  })
  .refine((section) => section.access_token !== undefined || (section.user && section.password), {
    message: 'set access_token, or user and password, e.g. access_token: ${MATRIX_ACCESS_TOKEN}',
  });

export interface MatrixConfig {
  readonly enabled: boolean;
  readonly homeserver: string;
  /** Secret: the redactor knows it. */
  readonly accessToken: string | undefined;
  readonly user: string | undefined;
  /** Secret: the redactor knows it. */
  readonly password: string | undefined;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
}

export function toMatrixConfig(section: z.output<typeof matrixSectionSchema>): MatrixConfig {
  return {
    enabled: section.enabled,
    homeserver: section.homeserver.replace(/\/+$/, ''),
    accessToken: section.access_token,
    user: section.user,
    password: section.password,
    access: toChannelAccess(section),
    progress: section.progress,
  };
}
