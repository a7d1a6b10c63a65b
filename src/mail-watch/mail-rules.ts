import picomatch from 'picomatch';
import type { MailRule } from '../config/mail-watch-config.js';

/** What a rule is matched against: the envelope only (cheap: no body is fetched for mail no rule takes). */
export interface MailHeader {
  folder: string;
  /** Lower-cased sender address. */
  from: string;
  subject: string;
}

/** Whether `rule` takes the mail: every filter it sets must hold (a rule with none takes every mail). */
export function ruleMatches(rule: MailRule, mail: MailHeader): boolean {
  if (rule.folder && rule.folder !== mail.folder) return false;
  if (rule.from && !picomatch.isMatch(mail.from, rule.from, { nocase: true })) return false;
  if (rule.subject && !mail.subject.toLowerCase().includes(rule.subject.toLowerCase())) return false;
  return true;
}

/** The first rule, in config order, that takes the mail: a mail is summarised once, however many match. */
export function firstMatchingRule(rules: readonly MailRule[], mail: MailHeader): MailRule | undefined {
  return rules.find((rule) => ruleMatches(rule, mail));
}
