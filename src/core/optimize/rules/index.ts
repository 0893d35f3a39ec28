import { aggregateToJoin } from './aggregateToJoin';
import { existsToIn } from './existsToIn';
import { hoistOuterConditions } from './hoistOuterConditions';
import { impliedEqualities } from './impliedEqualities';
import { orToUnion } from './orToUnion';
import { preAggregateFanOut } from './preAggregateFanOut';
import { RewriteRule } from './types';

/** The optimizer's own rewrite rules, by id (each has docs/rules/<id>.md with its proof conditions). */
export const REWRITE_RULES: readonly RewriteRule[] = [
  existsToIn,
  aggregateToJoin,
  hoistOuterConditions,
  preAggregateFanOut,
  impliedEqualities,
  orToUnion,
];
