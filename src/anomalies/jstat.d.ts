// The one part of jstat (which ships no types) the detector uses.
declare module 'jstat' {
  const jStat: {
    studentt: { cdf(x: number, degreesOfFreedom: number): number };
  };
  export default jStat;
}
