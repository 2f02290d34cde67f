import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

/**
 * An image the API serves only with the token (a sketch, a candidate's or a
 * target's photo): fetched through the SDK, shown from a blob: URL that is
 * released when the image goes.
 */
export function BlobImage({
  queryKey,
  load,
  alt,
  className,
}: {
  queryKey: readonly unknown[];
  load: () => Promise<Blob>;
  alt: string;
  className?: string;
}) {
  const blob = useQuery({ queryKey: ['blob', ...queryKey], queryFn: load, staleTime: Infinity });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob.data) return;
    const objectUrl = URL.createObjectURL(blob.data);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [blob.data]);
  if (blob.isError) return <p className="muted">{alt}: could not be loaded.</p>;
  if (!url) return <p className="muted">Loading {alt}…</p>;
  return <img src={url} alt={alt} className={className} />;
}
