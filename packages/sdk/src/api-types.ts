/** Shapes of requests and answers, read off the generated types of each operation. */

/** The JSON body an operation takes. */
export type BodyOf<D> = D extends { body?: infer B } ? Exclude<B, undefined> : never;

/** The query parameters an operation takes (every one optional where the API's are). */
export type QueryOf<D> = D extends { query?: infer Q } ? Exclude<Q, undefined> : never;

/** The successful answer of an operation. */
export type ResultOf<R> = R[keyof R];

/** Query parameters without the paging ones, which the list iterators manage. */
export type FiltersOf<D, Paging extends string> = Omit<QueryOf<D>, Paging>;
