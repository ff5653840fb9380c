import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import type { InvitableRole, Role } from '../../api/types';
import type { Language } from '../../i18n/languages';
import { useSession } from '../../app/session-context';

export const MEMBERS_PAGE = 25;

export function useLanguageSetting() {
  const { ws } = useSession();
  return useQuery({ queryKey: keys.language(ws), queryFn: () => unwrap(api.GET('/api/v1/workspaces/current/language')) });
}

export function useSetLanguage() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (language: Language) => unwrap(api.PUT('/api/v1/workspaces/current/language', { body: { language } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.language(ws) }),
  });
}

export function useRename() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(api.PUT('/api/v1/workspaces/{workspace_uuid}', { params: { path: { workspace_uuid: ws } }, body: { name } })),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.current(ws) }),
        queryClient.invalidateQueries({ queryKey: keys.workspaces }),
      ]),
    meta: { quiet: true },
  });
}

export function useMembers(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.members(ws), page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workspaces/{workspace_uuid}/members', {
          params: { path: { workspace_uuid: ws }, query: { limit: MEMBERS_PAGE, offset: (page - 1) * MEMBERS_PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useChangeRole() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (v: { account: string; role: Role }) =>
      unwrap(
        api.PATCH('/api/v1/workspaces/{workspace_uuid}/members/{account_uuid}', {
          params: { path: { workspace_uuid: ws, account_uuid: v.account } },
          body: { role: v.role },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.members(ws) }),
  });
}

export function useRemoveMember() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (account: string) =>
      unwrap(api.DELETE('/api/v1/workspaces/{workspace_uuid}/members/{account_uuid}', { params: { path: { workspace_uuid: ws, account_uuid: account } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.members(ws) }),
  });
}

export function useInvitations(page: number) {
  const { ws } = useSession();
  return useQuery({
    queryKey: [...keys.invitations(ws), page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workspaces/{workspace_uuid}/invitations', {
          params: { path: { workspace_uuid: ws }, query: { limit: MEMBERS_PAGE, offset: (page - 1) * MEMBERS_PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useInvite() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (v: { email: string; role: InvitableRole }) =>
      unwrap(api.POST('/api/v1/workspaces/{workspace_uuid}/invitations', { params: { path: { workspace_uuid: ws } }, body: v })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.invitations(ws) }),
    meta: { quiet: true },
  });
}

export function useRevokeInvitation() {
  const { ws } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (uuid: string) =>
      unwrap(
        api.DELETE('/api/v1/workspaces/{workspace_uuid}/invitations/{invitation_uuid}', {
          params: { path: { workspace_uuid: ws, invitation_uuid: uuid } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.invitations(ws) }),
  });
}
