declare module "seek-bzip" {
  const Bunzip: {
    /** Decompress a whole .bz2 buffer (all streams when `multistream`). */
    decode(input: Buffer | Uint8Array, output?: undefined, multistream?: boolean): Buffer;
  };
  export default Bunzip;
}
