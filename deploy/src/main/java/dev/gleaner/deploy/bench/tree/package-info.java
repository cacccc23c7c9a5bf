/**
 * {@code gleaner bench --tree}: relays on the namespace testbed, the tree against the flat star and
 * paper 002's steady state.
 */
package dev.gleaner.deploy.bench.tree;
