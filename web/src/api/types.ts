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
