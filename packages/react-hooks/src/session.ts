import type { components, UserSession } from '@exchange-kit/partner-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { errorMessage } from './errors.js';
import { useQuickExchange } from './provider.js';
import { quickExchangeKeys } from './query-keys.js';

type Schemas = components['schemas'];

/**
 * A user session as the hooks keep it. The session_secret the server returns is left out, so
 * nothing that holds this object (the query cache, sessionStorage, server-rendered HTML) holds
 * a secret: it is safe to save and to restore.
 */
export interface QuickExchangeSession {
  sessionId: string;
  environment: Schemas['Environment'];
  suggestedCountry: string;
  defaultTransaction: Schemas['DefaultTransaction'];
  /** The terms of service the user accepts with a transaction. */
  termsOfServiceHref: string;
}

export interface UserSessionOptions {
  /** A session saved earlier: used as it is, without opening a new one. */
  restore?: QuickExchangeSession;
  /** Defaults to the browser's language, from which the server suggests a country. */
  userLocale?: string;
  ancestorOrigins?: string;
  /** The widget initialization object, when the session is for the widget. */
  widget?: Schemas['WidgetInitialization'];
  /** Set false to wait (for example for consent) before a session is opened. */
  enabled?: boolean;
}

export interface UserSessionResult {
  session: QuickExchangeSession | undefined;
  isLoading: boolean;
  error: Error | null;
  errorMessage: string | undefined;
  /** Opens a new session in place of the current one; undefined when that failed. */
  renew(): Promise<QuickExchangeSession | undefined>;
}

function keptPart(session: UserSession): QuickExchangeSession {
  return {
    sessionId: session.session_id,
    environment: session.environment,
    suggestedCountry: session.client_info.suggested_country,
    defaultTransaction: session.default_transaction,
    termsOfServiceHref: session._links.terms_of_service.href,
  };
}

/** Opens a user session once per provider, or restores a saved one. */
export function useUserSession(options: UserSessionOptions = {}): UserSessionResult {
  const { client, publicApiKey } = useQuickExchange();
  const queryClient = useQueryClient();
  const queryKey = quickExchangeKeys.session(publicApiKey);
  const { userLocale, ancestorOrigins, widget } = options;

  const open = async (): Promise<QuickExchangeSession> => {
    const locale =
      userLocale ?? (typeof navigator === 'undefined' ? undefined : navigator.language);
    const session = await client.sessions.create({
      ...(locale ? { user_locale: locale } : {}),
      ...(ancestorOrigins === undefined ? {} : { ancestor_origins: ancestorOrigins }),
      ...(widget === undefined ? {} : { config: widget }),
    });
    return keptPart(session);
  };

  const query = useQuery({
    queryKey,
    // Opening a session is not a read: a refetch (invalidation, focus, remount) hands back the
    // session already held instead of opening another one. renew() is the way to a new one.
    queryFn: () => queryClient.getQueryData<QuickExchangeSession>(queryKey) ?? open(),
    ...(options.restore ? { initialData: options.restore } : {}),
    enabled: options.enabled ?? true,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
  });

  const renewal = useMutation({
    mutationFn: open,
    onSuccess: (session) => queryClient.setQueryData(queryKey, session),
  });
  const { mutateAsync } = renewal;
  const renew = useCallback(() => mutateAsync().catch(() => undefined), [mutateAsync]);

  const error = renewal.error ?? query.error;
  return {
    session: query.data,
    isLoading: query.isLoading || renewal.isPending,
    error,
    errorMessage: errorMessage(error),
    renew,
  };
}
