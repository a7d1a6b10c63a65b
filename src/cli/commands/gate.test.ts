import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capturedIo } from '../../../test/support/captured-io.js';
import { gateDatabase } from '../../../test/support/gate-database.js';
import { AuditRepository } from '../../store/audit-repository.js';
import { GrantRepository } from '../../store/grant-repository.js';
import { openDatabase } from '../../store/open-database.js';
import { runApprovalsList, runApprovalsRevoke, runAudit, runSecurityAudit } from './gate.js';

function home(config = '') {
  const dir = join(mkdtempSync(join(tmpdir(), 'wren-gatecli-')), 'home');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'config.yaml'), config, { mode: 0o600 });
  gateDatabase(join(dir, 'wren.db')).close();
  return dir;
}

function seed(dir: string) {
  const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
  const grants = new GrantRepository(db);
  const git = grants.add({ tool: 'exec', target: 'git', scope: 'always', createdBy: 'cli' });
  grants.add({ tool: 'send_email', scope: 'session', sessionId: 's1', createdBy: 'api' });
  const audit = new AuditRepository(db);
  for (const [tool, outcome] of [
    ['read_file', 'allowed'],
    ['exec', 'denied'],
  ] as const) {
    audit.append({
      sessionId: 's1',
      channel: 'cli',
      senderId: 'owner',
      tool,
      args: '{"x":1}',
      rule: 'risk',
      decision: outcome === 'allowed' ? 'allow' : 'ask',
      outcome,
      ...(outcome === 'denied' ? { answer: 'deny', answeredBy: 'cli' } : {}),
      reason: `reason for ${tool}`,
    });
  }
  db.close();
  return git.id;
}

describe('wren approvals / audit', () => {
  it('lists grants, revokes one, and fails on an unknown id', async () => {
    const dir = home();
    const id = seed(dir);
    const list = capturedIo();
    expect(await runApprovalsList({ home: dir }, list.io)).toBe(0);
    expect(list.out.stdout).toMatch(/^ID\s+TOOL\s+TARGET\s+SCOPE/);
    expect(list.out.stdout).toContain('git');
    expect(list.out.stdout).toContain('session s1');
    const revoke = capturedIo();
    expect(await runApprovalsRevoke({ home: dir, id }, revoke.io)).toBe(0);
    const again = capturedIo();
    expect(await runApprovalsRevoke({ home: dir, id }, again.io)).toBe(1);
    expect(again.out.stderr).toContain(`no standing approval ${id}`);
    const json = capturedIo();
    await runApprovalsList({ home: dir, json: true }, json.io);
    expect((JSON.parse(json.out.stdout) as { grants: unknown[] }).grants).toHaveLength(1);
  });

  it('shows the audit log oldest-first in text, newest-first in JSON, and checks --limit', async () => {
    const dir = home();
    seed(dir);
    const text = capturedIo();
    expect(await runAudit({ home: dir }, text.io)).toBe(0);
    expect(text.out.stdout.indexOf('read_file')).toBeLessThan(text.out.stdout.indexOf('exec'));
    expect(text.out.stdout).toContain('ask by risk (deny by cli)');
    const json = capturedIo();
    await runAudit({ home: dir, json: true, limit: '1', session: 's1' }, json.io);
    expect(JSON.parse(json.out.stdout)).toEqual({ entries: [expect.objectContaining({ tool: 'exec' })] });
    for (const limit of ['0', 'ten', '1001']) {
      const bad = capturedIo();
      expect(await runAudit({ home: dir, limit }, bad.io)).toBe(2);
    }
  });
});

const noBwrap = async () => ({ available: false, reason: 'bwrap is missing' });

describe('wren security audit', () => {
  it('passes a default home and reports stable ids in JSON', async () => {
    const dir = home();
    const run = capturedIo();
    const code = await runSecurityAudit(
      { home: dir, json: true, env: { PATH: '' }, sandboxProbe: noBwrap },
      run.io,
    );
    const body = JSON.parse(run.out.stdout) as { ok: boolean; checks: Array<{ id: string; status: string }> };
    expect(body.checks.map((check) => check.id)).toEqual([
      'security.gateway_exposed',
      'security.state_permissions',
      'security.gate_config',
      'security.auto_mode_exec',
      'security.short_secrets',
      'security.sandbox',
      'security.open_allow_from',
      'security.mcp_unpinned',
    ]);
    expect(body.checks.find((check) => check.id === 'security.sandbox')?.status).toBe('warn');
    expect(body.ok).toBe(true);
    expect(code).toBe(0);
  });

  it('fails on exposure, loose permissions, auto with exec, open allow_from; warns on unpinned MCP', async () => {
    const dir = home(`gateway:
  host: 0.0.0.0
  token: \${MISSING_TOKEN}
gate:
  mode: auto
tools:
  exec:
    sandbox: bwrap
channels:
  telegram:
    allow_from: ["*"]
`);
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
          pinned: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'] },
          remote: { url: 'http://127.0.0.1:9/mcp' },
        },
      }),
    );
    chmodSync(join(dir, 'config.yaml'), 0o644);
    const run = capturedIo();
    expect(await runSecurityAudit({ home: dir, env: { PATH: '' }, sandboxProbe: noBwrap }, run.io)).toBe(1);
    const lines = run.out.stdout;
    expect(lines).toMatch(/✗ security.gateway_exposed\s+gateway.host is 0.0.0.0 but no token/);
    expect(lines).toMatch(/✗ security.state_permissions .*config.yaml is readable by group and others/);
    expect(lines).toMatch(/✗ security.auto_mode_exec/);
    expect(lines).toMatch(
      /✗ security.sandbox\s+exec will refuse every command: tools.exec.sandbox is bwrap but bwrap is missing/,
    );
    expect(lines).toMatch(/✗ security.open_allow_from .*telegram/);
    expect(lines).toMatch(/! security.mcp_unpinned .*fs \(@modelcontextprotocol\/server-filesystem\)/);
    expect(lines).not.toContain('pinned (');
  });

  it('reports the sandbox as exec will use it: auto without bubblewrap warns, with it passes', async () => {
    const dir = home();
    const without = capturedIo();
    await runSecurityAudit({ home: dir, env: {}, sandboxProbe: noBwrap }, without.io);
    expect(without.out.stdout).toMatch(
      /! security.sandbox\s+exec runs commands without a sandbox: bwrap is missing/,
    );
    const working = capturedIo();
    await runSecurityAudit(
      { home: dir, env: {}, sandboxProbe: async () => ({ available: true }) },
      working.io,
    );
    expect(working.out.stdout).toMatch(/✓ security.sandbox\s+exec runs commands in bubblewrap/);
  });

  it('reports an invalid gate section instead of crashing', async () => {
    const dir = home('gate:\n  mode: yolo\n');
    const run = capturedIo();
    expect(await runSecurityAudit({ home: dir, json: true, env: {} }, run.io)).toBe(1);
    expect(run.out.stdout).toContain('security.gate_config');
    expect(run.out.stdout).toContain('mode');
  });
});
