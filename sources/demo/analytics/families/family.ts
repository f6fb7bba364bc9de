/**
 * Families of behaviour (issue 46): the wash classifier is judged on families it was not tuned on
 * (leave-one-family-out, pipelines/analytics/eval-wash-lofo.ts). A family is a parameterised
 * generator of one kind of behaviour, wash or honest, with every parameter drawn at random from
 * its range for each planted instance. Wash families include variants a wash trader would use to
 * slip just outside the thresholds of rules of the kinds we have; honest families include groups
 * that sit just inside them (a crowd that looks like a cohort). Each family says which rule or
 * threshold it sits against, so a reader sees what it probes.
 *
 * A family knows nothing of the classifier's code: it describes behaviour (who funds whom, who
 * pays whom, when, how much), and the truth of its buyers.
 */
import type { WashLabel } from '../../../../catalog/categories.ts';
import type { Builder, Service } from '../challenge/builder.ts';

export type TruthLabel = Exclude<WashLabel, 'unlabeled'>;

/** A parameter's range (inclusive) and unit; `integer` parameters are drawn as integers. */
export interface FamilyParam {
  range: readonly [lo: number, hi: number];
  unit: string;
  integer?: boolean;
}

export const param = (unit: string, range: readonly [number, number], integer = false): FamilyParam => ({ range, unit, integer });

/** What a family's planter gets: the builder, and the way to mark a buyer as the family's. */
export interface FamilyContext {
  b: Builder;
  /** The family's name (the truth table's `pattern`). */
  family: string;
  /** The instance's group id (`<family>-<n>`). */
  group: string;
  /** The family's true label. */
  label: TruthLabel;
  /** Marks `address` as one of this instance's buyers (every paying wallet a family makes must be marked). */
  buyer(address: string): void;
  /** Marks `address` as an ordinary organic user (real customers a family's sellers also have). */
  organic(address: string): void;
}

export interface FamilyDef<P extends string = string> {
  kind: 'wash' | 'honest';
  /** The true label of the family's buyers. */
  label: TruthLabel;
  /**
   * The rule or threshold the family sits against: for a wash family, what it slips just outside
   * of; for an honest family, what it sits just inside of. Empty when it sits against none.
   */
  against: string;
  /** What it is, in real behaviour (a sentence or two). */
  about: string;
  params: Record<P, FamilyParam>;
  /** Instances (groups) planted per world, each with its own draw of the parameters. */
  instances: number;
  /**
   * Pair labels its buyers' pairs may carry besides the buyer's own (a developer's casual calls to
   * other services are organic_user pairs); the truth's pair label is the one passed to `pay`.
   */
  otherPairLabels?: readonly TruthLabel[];
  plant(ctx: FamilyContext, q: Record<P, number>): void;
}

/** A family with its parameter names inferred from `params`. */
export const family = <P extends string>(def: FamilyDef<P>): FamilyDef<P> => def;

/** Services a family may read: re-exported so family modules import from one place. */
export type { Builder, Service };
