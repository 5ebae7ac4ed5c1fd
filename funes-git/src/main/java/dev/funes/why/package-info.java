/**
 * "Why is this so?": memories linked to the git commits of the repositories their sessions ran in,
 * and queries from a commit, a file (or a line of it) or a topic to the decisions, exchanges and
 * sessions behind it. Entry point: {@link dev.funes.why.Why}. docs/WHY.md describes the evidence
 * types, confidences and the staleness rule.
 */
package dev.funes.why;
