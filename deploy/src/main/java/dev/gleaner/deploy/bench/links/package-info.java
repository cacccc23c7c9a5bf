/**
 * {@code gleaner bench --links}: a data-heavy job across a {@link dev.gleaner.deploy.testbed.Testbed} whose links
 * differ, a master and worker JVMs each in a namespace of its own, run by the links driver
 * ({@link dev.gleaner.deploy.bench.driver.LinksDriver}) inside the master's namespace.
 */
package dev.gleaner.deploy.bench.links;
