declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, hashtag included. */
  export default function calculateSlot(key: string | Buffer): number;
}
