import { HintRule } from '../types';
import { correlatedScalarSubquery } from './correlatedScalarSubquery';
import { countStar } from './countStar';
import { countToExists } from './countToExists';
import { distinctWithGroupBy } from './distinctWithGroupBy';
import { functionOnColumn } from './functionOnColumn';
import { likeWithoutWildcard } from './likeWithoutWildcard';
import { notInNullable } from './notInNullable';
import { orChainToIn } from './orChainToIn';
import { orderByLimitOne } from './orderByLimitOne';
import { outerBoundColumn } from './outerBoundColumn';
import { semiJoinToJoin } from './semiJoinToJoin';

/** Every rule, by id. Each has a one-page doc at docs/rules/<id>.md. VL020 and up belong to the optimizer (core/optimize/). */
export const RULES: readonly HintRule[] = [
  semiJoinToJoin,
  countStar,
  orderByLimitOne,
  functionOnColumn,
  correlatedScalarSubquery,
  likeWithoutWildcard,
  orChainToIn,
  distinctWithGroupBy,
  notInNullable,
  countToExists,
  outerBoundColumn,
];
