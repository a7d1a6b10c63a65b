import type { Command } from 'commander';
import { EXIT } from '../report-failure.js';
import { withServices } from '../with-services.js';

const out = (text: string) => process.stdout.write(`${text}\n`);

/**
 * `wren pairing list [--json]`, `wren pairing approve CODE`, `wren pairing revoke CODE | CHANNEL:ID`. Codes
 * are what an unknown sender got from a channel with `pairing: true`; approving admits that sender (as
 * `allow_from` would: they may talk, never approve calls). Works whether or not `wren start` runs: the
 * running channels read the pairing at each message. Exit codes: 0 ok, 1 not found.
 */
export function registerPairingCommands(program: Command, home: () => string): void {
  const group = program
    .command('pairing')
    .description('people who asked to talk to Wren on a chat platform: list, approve, revoke');
  group
    .command('list', { isDefault: true })
    .description('pending codes (valid an hour) and approved senders')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) =>
      withServices(home(), (services) => {
        const pairings = services.pairings.list();
        if (options.json) {
          out(JSON.stringify({ pairings }, null, 2));
          return;
        }
        if (pairings.length === 0) out('No pairing requests.');
        for (const pairing of pairings) {
          const who = `${pairing.channel}:${pairing.senderId}${pairing.senderName ? ` (${pairing.senderName})` : ''}`;
          const state = pairing.approvedAt
            ? `approved ${new Date(pairing.approvedAt).toISOString().slice(0, 16)}`
            : `pending, expires ${new Date(pairing.expiresAt).toISOString().slice(11, 16)} UTC`;
          out(`${pairing.code}  ${who}  ${state}`);
        }
      }),
    );
  group
    .command('approve <code>')
    .description('let the sender who got this code talk to Wren')
    .action(async (code: string) =>
      withServices(home(), ({ pairings }) => {
        const approved = pairings.approve(code);
        if (!approved.ok) {
          process.stderr.write(
            `wren: no pending pairing code ${code.toUpperCase()} (codes expire after an hour)\n`,
          );
          process.exitCode = EXIT.failed;
          return;
        }
        const { pairing } = approved;
        out(
          `Approved ${pairing.channel}:${pairing.senderId}${pairing.senderName ? ` (${pairing.senderName})` : ''}.`,
        );
      }),
    );
  group
    .command('revoke <code-or-sender>')
    .description('forget a pairing (a code, or channel:id such as telegram:12345)')
    .action(async (what: string) =>
      withServices(home(), ({ pairings }) => {
        if (!pairings.revoke(what).ok) {
          process.stderr.write(`wren: no pairing ${what}\n`);
          process.exitCode = EXIT.failed;
          return;
        }
        out(`Revoked ${what}.`);
      }),
    );
}
