import { dingtalkPlatform } from './dingtalk/dingtalk-platform.js';
import { discordPlatform } from './discord/discord-platform.js';
import { emailPlatform } from './email/email-platform.js';
import { feishuPlatform } from './feishu/feishu-platform.js';
import { matrixPlatform } from './matrix/matrix-platform.js';
import { mattermostPlatform } from './mattermost/mattermost-platform.js';
import { qqPlatform } from './qq/qq-platform.js';
import { signalPlatform } from './signal/signal-platform.js';
import { slackPlatform } from './slack/slack-platform.js';
import { telegramPlatform } from './telegram/telegram-platform.js';
import { wecomPlatform } from './wecom/wecom-platform.js';
import { whatsappPlatform } from './whatsapp/whatsapp-platform.js';

/**
 * Every chat platform Wren speaks, one entry each: `channels:` in config.yaml is built from this list (in
 * this order), and `wren start` runs the enabled ones in this order. Adding a platform: its folder (config
 * schema, adapter, descriptor) and one entry here.
 */
export const platforms = [
  telegramPlatform,
  emailPlatform,
  slackPlatform,
  discordPlatform,
  wecomPlatform,
  feishuPlatform,
  dingtalkPlatform,
  qqPlatform,
  signalPlatform,
  mattermostPlatform,
  matrixPlatform,
  whatsappPlatform,
] as const;
