declare module "unbzip2-stream" {
  /** A classic (through) stream: bzip2 bytes in, decompressed bytes out. */
  export default function unbzip2(): NodeJS.ReadWriteStream;
}
