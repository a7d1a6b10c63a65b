import { existsSync } from 'node:fs';
import type { RuntimeCommand } from '../agent/agent-runtime.js';
import type { ContextBuilderOptions } from '../agent/context-builder.js';
import type { SessionRecord, SessionStore } from '../agent/session-store.js';
import type { Tool } from '../agent/tool.js';
import type { ChatModel } from '../llm/types.js';
import { createMemoService, type MemoService } from '../services/memo-service.js';
import { createTaskService, type TaskService } from '../services/task-service.js';
import type { Stores } from '../store/open-stores.js';
import { Consolidator, type ConsolidatorOptions } from './consolidator.js';
import { acceptProposal, dismissProposal, ProposalError } from './dream/memory-proposals.js';
import { isInstructionFile, observeInstructionText, recordInstalled } from './file-history.js';
import { createMemoryCommands, type MemoryProposalPort, type ProposalOutcome } from './memory-commands.js';
import type { MemoryConfig } from './memory-config.js';
import { type MemorySearcher, searchMemory } from './memory-search.js';
import type { SemanticMemory } from './semantic-memory.js';
import { installBuiltInSkills, SkillLibrary } from './skills.js';
import { createMemoTool } from './tools/memo-tool.js';
import { createMemorySearchTool } from './tools/memory-search-tool.js';
import { createReadSkillTool } from './tools/read-skill-tool.js';
import { createTaskTool, openTasksSection } from './tools/task-tool.js';

export interface MemoryDeps {
  /** The home's stores: consolidation status, memos, tasks, taint and message search (beside `store`). */
  stores: Pick<Stores, 'consolidation' | 'memos' | 'tasks' | 'taint' | 'messages'> &
    Partial<Pick<Stores, 'fileVersions' | 'memoryProposals'>>;
  store: SessionStore;
  model: ChatModel;
  workspace: () => string;
  config: () => MemoryConfig;
  /** Tokens of live history one turn may use: context window − max output − history reserve. */
  historyBudget: () => number;
  timezone?: () => string | undefined;
  onUsage?: ConsolidatorOptions['onUsage'];
  onError?: (error: unknown, sessionId?: string) => void;
  env?: NodeJS.ProcessEnv;
  clock?: () => number;
  /** Test hook, see ConsolidatorOptions. */
  onStage?: ConsolidatorOptions['onStage'];
  /** Semantic memory search (see createSemanticMemory); without it, search is by keywords. */
  semantic?: SemanticMemory;
}

/** Everything memory adds to the app; see the JSDoc of each member for where it plugs in. */
export interface Memory {
  /** `memory_search` (core), `memo`, `task`, `read_skill`: register each in the ToolRegistry. */
  tools: Tool[];
  /** `/memory` and `/forget`: pass as AgentRuntimeOptions.commands (merged with others). */
  commands: Record<string, RuntimeCommand>;
  /** Spread into every `new ContextBuilder({...})`: skills index, open tasks and caps. */
  contextOptions(): Pick<
    ContextBuilderOptions,
    'skills' | 'openTasks' | 'memoryPromptChars' | 'summaryChars' | 'onFileRead'
  >;
  consolidator: Consolidator;
  /** What `memory_search` runs: past messages and HISTORY.md, by keywords (and meaning, when configured). */
  search: MemorySearcher;
  /** The memo and task services the `memo` and `task` tools act through (as `wren memo`/`task` and the API). */
  memos: MemoService;
  tasks: TaskService;
  skills: SkillLibrary;
  /** Call from AgentRuntimeOptions.onTurnEnd: starts a background consolidation when one is due. */
  afterTurn(session: SessionRecord): void;
  /** AgentRuntimeOptions.beforeNewSession: consolidates the old session, waiting at most newSessionWaitMs. */
  beforeNewSession(old: SessionRecord): Promise<void>;
  /** Installs the built-in skills (first run) and finishes consolidations a crash interrupted. */
  start(): Promise<void>;
  /** Lets running consolidations finish for up to `graceMs`, then stops them (before closing the db). */
  close(graceMs?: number): Promise<void>;
}

/**
 * `/memory`'s port to Dream's proposals over the home's stores: the rules `wren memory accept|dismiss` and the
 * API follow (acceptProposal, dismissProposal); a ProposalError becomes the outcome's error.
 */
function proposalPort(
  stores: Pick<Stores, 'memoryProposals'> & Partial<Pick<Stores, 'fileVersions'>>,
  timezone: () => string | undefined,
  clock: () => number,
): MemoryProposalPort {
  const options = (workspace: string) => {
    const zone = timezone();
    return { stores, workspace, clock, ...(zone ? { timezone: zone } : {}) };
  };
  const refusal = (error: unknown): ProposalOutcome => {
    if (!(error instanceof ProposalError)) throw error;
    return { ok: false, error: error.message };
  };
  return {
    pending: () => stores.memoryProposals.list('pending'),
    accept: (workspace, id) =>
      acceptProposal(options(workspace), id).then((proposal) => ({ ok: true, proposal }), refusal),
    dismiss(id) {
      try {
        return { ok: true, proposal: dismissProposal(options(''), id) };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** Builds the memory subsystem over the home's stores and workspace. Does no I/O until `start`. */
export function createMemory(deps: MemoryDeps): Memory {
  const { consolidation: status, taint } = deps.stores;
  const memos = createMemoService(deps.stores);
  const tasks = createTaskService(deps.stores);
  const versions = deps.stores.fileVersions;
  const observe = (path: string, text: string) => {
    if (versions && isInstructionFile(path)) observeInstructionText(versions, path, text);
  };
  const skills = new SkillLibrary(deps.workspace, deps.env, versions ? observe : undefined);
  const consolidator = new Consolidator({
    store: deps.store,
    model: deps.model,
    status,
    workspace: deps.workspace,
    config: deps.config,
    historyBudget: deps.historyBudget,
    untrustedSince: (sessionId) => taint.of(sessionId).find((mark) => mark.kind === 'untrusted')?.at,
    ...(deps.timezone ? { timezone: deps.timezone } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.onUsage ? { onUsage: deps.onUsage } : {}),
    ...(deps.onStage ? { onStage: deps.onStage } : {}),
    onError: (error, sessionId) => deps.onError?.(error, sessionId),
    ...(versions ? { versions } : {}),
  });
  const timezone = deps.timezone ?? (() => undefined);
  const { memoryProposals } = deps.stores;
  const proposals = memoryProposals
    ? proposalPort({ ...deps.stores, memoryProposals }, timezone, deps.clock ?? Date.now)
    : undefined;
  const semantic = deps.semantic;
  const search: MemorySearcher =
    semantic?.search ??
    (async (query) => {
      const zone = timezone();
      return searchMemory(
        { messages: deps.stores.messages, workspace: deps.workspace(), ...(zone ? { timezone: zone } : {}) },
        query,
      );
    });
  return {
    tools: [
      createMemorySearchTool({
        stores: deps.stores,
        workspace: deps.workspace,
        timezone,
        ...(semantic ? { search } : {}),
      }),
      createMemoTool({ memos, timezone }),
      createTaskTool({ tasks }),
      createReadSkillTool({ skills }),
    ],
    commands: createMemoryCommands({
      store: deps.store,
      status,
      workspace: deps.workspace,
      timezone,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(versions ? { versions } : {}),
      ...(proposals ? { proposals } : {}),
    }),
    contextOptions: () => {
      const config = deps.config();
      return {
        skills: () => skills.promptSection(),
        openTasks: () => openTasksSection(tasks, config.openTasksInPrompt),
        memoryPromptChars: config.memoryPromptChars,
        summaryChars: config.summaryChars,
        // A file the prompt re-reads (its stamp changed) is observed: the owner's own edit becomes a version.
        ...(versions
          ? {
              onFileRead: observe,
            }
          : {}),
      };
    },
    consolidator,
    search,
    memos,
    tasks,
    skills,
    afterTurn: (session) => {
      consolidator.maybeConsolidate(session.id);
      semantic?.poke();
    },
    async beforeNewSession(old) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        consolidator.flush(old.id),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, deps.config().newSessionWaitMs);
        }),
      ]);
      clearTimeout(timer);
    },
    async start() {
      const workspace = deps.workspace();
      if (existsSync(workspace))
        for (const name of installBuiltInSkills(workspace)) {
          const path = `skills/${name}/SKILL.md`;
          // A built-in skill's first version says where it came from (not "first seen on disk").
          if (versions) recordInstalled(versions, workspace, path);
        }
      semantic?.start();
      await consolidator.recover();
    },
    async close(graceMs) {
      await semantic?.close();
      await consolidator.close(graceMs);
    },
  };
}
