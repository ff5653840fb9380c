import type { components } from './schema';

type S = components['schemas'];
export type Provider = S['Provider'];
export type Requester = S['Requester'];
export type ConfigField = S['ConfigField'];
export type ItemMeta = S['ItemMeta'];
export type Model = S['ModelDto'];
export type ModelInput = S['ModelInput'];
export type CreateProvider = S['CreateProvider'];
export type UpdateProvider = S['UpdateProvider'];
export type DeleteReport = S['DeleteReport'];
export type Pipeline = S['Pipeline'];
export type ApiKey = S['ApiKey'];
export type CreateApiKey = S['CreateApiKey'];
export type ApiKeyWithSecret = S['ApiKeyWithSecret'];
export type Permission = S['Permission'];
export type Workspace = S['Workspace'];
export type CurrentWorkspace = S['CurrentWorkspace'];
export type Membership = S['Membership'];
export type Invitation = S['Invitation'];
export type CreatedInvitation = S['CreatedInvitation'];
export type InspectedInvitation = S['InspectedInvitation'];
export type Role = S['Role'];
export type InvitableRole = S['InvitableRole'];
export type AccountInfo = S['AccountInfo'];
export type SystemInfo = S['SystemInfo'];
export type I18nText = S['I18nText'];

export type ModelKind = 'llm' | 'embedding' | 'rerank';
export const MODEL_KINDS: readonly ModelKind[] = ['llm', 'embedding', 'rerank'];

/** The requester `support_type` that allows models of `kind`. */
export const SUPPORT_TYPE: Record<ModelKind, string> = {
  llm: 'llm',
  embedding: 'text-embedding',
  rerank: 'rerank',
};

export type Bot = S['Bot'];
export type BotDetail = S['BotDetail'];
export type Adapter = S['Adapter'];
export type CreateBot = S['CreateBot'];
export type UpdateBot = S['UpdateBot'];
export type Route = S['Route'];
export type RouteInput = S['RouteInput'];
export type RouteFilter = S['Filter'];
export type Operator = S['Operator'];
export type TargetType = S['TargetType'];
export type DryRunRequest = S['DryRunRequest'];
export type DryRunResult = S['DryRunResult'];
export type DryRunStep = S['Step'];
export type RouteStatus = S['RouteStatus'];
export type RouteStatuses = S['RouteStatuses'];
export type PipelineMetadata = S['PipelineMetadata'];
export type SectionMeta = S['SectionMeta'];
export type StageMeta = S['StageMeta'];
export type PipelineConfig = S['PipelineConfig'];
export type PipelineExtensions = S['PipelineExtensions'];
export type McpServer = S['McpServer'];
export type RoutingBot = S['RoutingBot'];
export type Overview = S['Overview'];
export type ExecutionRow = S['ExecutionRow'];
export type ExecutionPage = S['ExecutionPage'];
export type ExecutionDetail = S['ExecutionDetail'];
export type SectionPage = S['SectionPage'];
export type Snapshot = S['Snapshot'];
export type SessionRow = S['SessionRow'];
export type LlmCallRow = S['LlmCallRow'];
export type ToolCallRow = S['ToolCallRow'];
export type MessageRow = S['MessageRow'];
export type ErrorRow = S['ErrorRow'];
export type Traffic = S['Traffic'];
export type TokenStatistics = S['TokenStatistics'];
export type StatusGroup = S['Status'];

/** Every route-filter operator, in the order the editor offers them (checked against the schema). */
export const OPERATORS = ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'regex'] as const satisfies readonly Operator[];
type MissingOperator = Exclude<Operator, (typeof OPERATORS)[number]>;
// Fails to compile when the server declares an operator the editor does not offer.
export const OPERATORS_COMPLETE: MissingOperator extends never ? true : never = true;

export const STATUS_GROUPS = ['queued', 'running', 'completed', 'failed', 'cancelled', 'ignored'] as const satisfies readonly StatusGroup[];
type MissingStatus = Exclude<StatusGroup, (typeof STATUS_GROUPS)[number]>;
export const STATUS_GROUPS_COMPLETE: MissingStatus extends never ? true : never = true;
export type UpdatePipelineExtensions = S['UpdatePipelineExtensions'];
export type UpdatePipeline = S['UpdatePipeline'];
