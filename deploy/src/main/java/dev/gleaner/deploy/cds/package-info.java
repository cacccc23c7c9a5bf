/**
 * The class-data archive of the client commands: {@code deploy/bin/gleaner} starts {@code status},
 * {@code jobs}, {@code submit} and the like from a JVM archive (AppCDS) of the classes they load, made
 * once per jar and Java by {@link dev.gleaner.deploy.cds.ClientArchive} in the background of the first
 * such command, from a training run ({@link dev.gleaner.deploy.cds.ClientTraining}) against a master
 * of its own on loopback.
 *
 * <p>A second entry point, beside {@code dev.gleaner.deploy.Gleaner}: the launcher runs it by its name, and the
 * training runs the commands through {@code Gleaner}, so it may import the entry point and what it runs; nothing
 * imports it.
 */
package dev.gleaner.deploy.cds;
