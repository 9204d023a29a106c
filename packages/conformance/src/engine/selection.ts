import type { Scenario } from '../scenarios/scenario.js';
import { RunAbortedError } from './aborted.js';
import { type ConformanceRequirement, catalog, type Profile, profileNames } from './catalog.js';
import type { Evidences } from './context.js';
import { operation } from './spec.js';

/** Which requirements a run gives verdicts on. */
export interface RequirementSelection {
  /** Profiles to run; all when empty or absent. */
  profiles?: Profile[];
  /** Only these requirement ids. */
  only?: string[];
  /** Only requirements about these operations (operation ids). */
  operations?: string[];
  /** Only requirements about operations carrying one of these spec tags. */
  tags?: string[];
}

/** The requirements a run with these options gives verdicts on, and its profiles; throws RunAbortedError on unknown names. */
export function selectRequirements(options: RequirementSelection): {
  selected: ConformanceRequirement[];
  profiles: Set<Profile>;
} {
  const profiles = new Set<Profile>(options.profiles?.length ? options.profiles : profileNames);
  for (const profile of profiles) {
    if (!profileNames.includes(profile)) {
      throw new RunAbortedError(
        `unknown profile "${profile}"; the profiles are ${profileNames.join(', ')}`,
      );
    }
  }
  const only = new Set(options.only ?? []);
  for (const id of only) {
    if (!catalog.some((requirement) => requirement.id === id)) {
      throw new RunAbortedError(
        `unknown requirement "${id}"; \`exchange-conformance list\` shows them all`,
      );
    }
  }
  const operationIds = new Set(options.operations ?? []);
  for (const id of operationIds) {
    if (!catalog.some((requirement) => requirement.operations.includes(id))) {
      throw new RunAbortedError(
        `unknown operation "${id}"; give an operationId of the specs, as \`exchange-conformance list\` shows them`,
      );
    }
  }
  const tags = new Set(options.tags ?? []);
  const tagsOf = (requirement: ConformanceRequirement) =>
    requirement.operations.flatMap((id) => operation(id).tags);
  for (const tag of tags) {
    if (!catalog.some((requirement) => tagsOf(requirement).includes(tag))) {
      const known = [...new Set(catalog.flatMap(tagsOf))].sort();
      throw new RunAbortedError(`unknown tag "${tag}"; the spec tags are ${known.join(', ')}`);
    }
  }
  const selected = catalog.filter(
    (requirement) =>
      requirement.profiles.some((profile) => profiles.has(profile)) &&
      (only.size === 0 || only.has(requirement.id)) &&
      (operationIds.size === 0 || requirement.operations.some((id) => operationIds.has(id))) &&
      (tags.size === 0 || tagsOf(requirement).some((tag) => tags.has(tag))),
  );
  return { selected, profiles };
}

/**
 * The scenarios a run of these requirements and profiles runs. A scenario left out for want of
 * the profile its fixtures need says so, as a skip, on each selected requirement it covers.
 */
export function scenariosToRun(
  scenarios: readonly Scenario[],
  selected: readonly ConformanceRequirement[],
  profiles: ReadonlySet<Profile>,
  evidence: Evidences,
): Scenario[] {
  const selectedIds = new Set(selected.map((requirement) => requirement.id));
  // Response and value requirements are judged on whatever the scenarios of their profiles call.
  const responseProfiles = new Set(
    selected.filter((r) => r.kind === 'response' || r.kind === 'value').flatMap((r) => r.profiles),
  );
  for (const scenario of scenarios) {
    const lacking = (scenario.requires ?? []).filter((profile) => !profiles.has(profile));
    if (!profiles.has(scenario.profile) || lacking.length === 0) continue;
    for (const id of scenario.covers) {
      if (!selectedIds.has(id)) continue;
      evidence.record({
        requirementId: id,
        outcome: 'skip',
        message: `needs the ${lacking.join(' and ')} profile${lacking.length > 1 ? 's' : ''} as well, for its fixtures`,
      });
    }
  }
  const running = scenarios.filter((scenario) =>
    scenarioRuns(scenario, selectedIds, responseProfiles, profiles),
  );
  // A requirement whose only scenarios are of a profile left out says which one to add.
  const covered = new Set(running.flatMap((scenario) => scenario.covers));
  for (const scenario of scenarios) {
    if (profiles.has(scenario.profile)) continue;
    for (const id of scenario.covers) {
      if (!selectedIds.has(id) || covered.has(id)) continue;
      evidence.record({
        requirementId: id,
        outcome: 'skip',
        message: `its scenario is of the ${scenario.profile} profile, which this run leaves out (add --profile ${scenario.profile})`,
      });
    }
  }
  return running;
}

function scenarioRuns(
  scenario: Scenario,
  selected: ReadonlySet<string>,
  responseProfiles: ReadonlySet<Profile>,
  profiles: ReadonlySet<Profile>,
): boolean {
  if (!profiles.has(scenario.profile)) return false;
  if (scenario.requires?.some((profile) => !profiles.has(profile))) return false;
  return scenario.covers.some((id) => selected.has(id)) || responseProfiles.has(scenario.profile);
}
