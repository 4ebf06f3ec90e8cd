/**
 * Typed reads of the `agentTimeTravel.*` settings and the store path they
 * resolve to. VS Code wiring only; the store path rule itself is the store's.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import { ModelModeSchema, type ModelMode } from '../model';
import { DEFAULT_TRANSCRIPT_DETAIL, TranscriptDetailSchema, type TranscriptDetail } from '../replay/transcript';
import { resolveStorePath } from '../store';
import { SETTINGS, SETTINGS_SECTION, type SettingKey } from './ids';

export interface Settings {
  storePath: string;
  defaultModelMode: ModelMode;
  modelBaseUrl: string;
  modelName: string;
  apiKeyEnvVar: string;
  transcriptDetail: TranscriptDetail;
  /** The "Coding agent sessions" section: shown, more folders, the home folder of the agents' folders. */
  sessionsEnabled: boolean;
  sessionsFolders: string[];
  sessionsHome: string;
  /** A what-if batch that spends model tokens runs without asking while its estimate stays at or under this. */
  whatIfAskAboveUsd: number;
}

function get<T>(key: SettingKey, fallback: T, valid: (v: unknown) => v is T): T {
  const scope = vscode.workspace.workspaceFolders?.[0]?.uri ?? null;
  const value = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope).get<unknown>(key);
  return valid(value) ? value : fallback;
}

/**
 * A setting that chooses where the user's key is sent (machine-scoped in
 * package.json): the user's own value only, never a workspace or folder value,
 * even if an older VS Code or a hand-edited file would apply one.
 */
function getUserOnly<T>(key: SettingKey, fallback: T, valid: (v: unknown) => v is T): T {
  const seen = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(key);
  const value = seen?.globalValue ?? seen?.defaultValue;
  return valid(value) ? value : fallback;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
/** A value the schema accepts as is (an enum of src/model or src/replay: the one list of its values). */
const accepts =
  <T>(schema: z.ZodType<T>) =>
  (v: unknown): v is T =>
    schema.safeParse(v).success;

export function readSettings(): Settings {
  return {
    storePath: get(SETTINGS.storePath, '', isString),
    defaultModelMode: get<ModelMode>(SETTINGS.defaultModelMode, 'captured', accepts(ModelModeSchema)),
    modelBaseUrl: getUserOnly(SETTINGS.modelBaseUrl, 'https://api.openai.com/v1', isString),
    modelName: get(SETTINGS.modelName, 'gpt-4o-mini', isString),
    apiKeyEnvVar: getUserOnly(SETTINGS.apiKeyEnvVar, 'OPENAI_API_KEY', isString),
    transcriptDetail: get<TranscriptDetail>(
      SETTINGS.transcriptDetail,
      DEFAULT_TRANSCRIPT_DETAIL,
      accepts(TranscriptDetailSchema),
    ),
    sessionsEnabled: get(SETTINGS.sessionsEnabled, true, isBoolean),
    sessionsFolders: getUserOnly(SETTINGS.sessionsFolders, [], isStrings),
    sessionsHome: getUserOnly(SETTINGS.sessionsHome, '', isString),
    whatIfAskAboveUsd: getUserOnly(SETTINGS.whatIfAskAboveUsd, 0, isAmount),
  };
}

/** The store file: the setting (relative to the first workspace folder), else OCDB_STORE, else `<folder>/.ocdb/runs.db`. */
export function storeFilePath(settings: Settings = readSettings()): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  const explicit = settings.storePath.trim();
  return resolveStorePath(explicit === '' ? undefined : explicit, process.env, folder);
}

/** True when a change event touches one of our settings. */
export function affectsSettings(e: vscode.ConfigurationChangeEvent, key?: SettingKey): boolean {
  return e.affectsConfiguration(key ? `${SETTINGS_SECTION}.${key}` : SETTINGS_SECTION);
}
