/** The interface's page envelope: one zero-based `page` of `size` items out of `totalElements`. */
export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  page: number;
  size: number;
}

export function pageView<T>(content: T[], totalElements: number, { page, size }: { page: number; size: number }): Page<T> {
  return { content, totalElements, totalPages: Math.ceil(totalElements / size), page, size };
}
