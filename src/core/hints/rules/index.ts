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
import { semiJoinToJoin } from './semiJoinToJoin';

/** Every rule, by id. Each has a one-page doc at docs/rules/<id>.md. */
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
];
