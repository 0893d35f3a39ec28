// jstat ships no types; only the Student t functions VES Lens uses are declared.
declare module 'jstat' {
  export const jStat: {
    studentt: {
      cdf(x: number, dof: number): number;
      inv(p: number, dof: number): number;
    };
  };
}
