import type { QueryKey, UseQueryOptions } from '@tanstack/react-query';

/**
 * TanStack's own query options a hook takes on top of its factory's: `enabled`, `staleTime`,
 * `select`, `throwOnError`, `refetchInterval`, ... Key and query function stay the factory's.
 */
export type QueryOverrides<TQueryFnData, TError, TData = TQueryFnData> = Omit<
  UseQueryOptions<TQueryFnData, TError, TData, QueryKey>,
  'queryKey' | 'queryFn'
>;
