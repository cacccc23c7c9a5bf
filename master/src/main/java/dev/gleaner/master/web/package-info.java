/**
 * What the master says and reads over HTTP, apart from the routing: {@link dev.gleaner.master.web.StatusJson}
 * writes what {@code GET /api/status} answers, in the JSON shape of {@link dev.gleaner.master.web.StatusMaps}
 * (which {@code gleaner status --json} and the jobs' API write too); {@link dev.gleaner.master.web.WebAssets}
 * holds the read-only page, the library files it loads and the API's OpenAPI description, all from the master's
 * jar; {@link dev.gleaner.master.web.JobFields} reads a job's fields (a job file's, or the body of {@code POST
 * /api/jobs}), with {@link dev.gleaner.master.web.Deadlines} and {@link dev.gleaner.master.web.Durations} for the
 * times people write. Used by {@code net}, which routes requests and decides who may see them, and by the
 * command line; uses {@code control}'s status. Nothing here imports {@code net}.
 */
package dev.gleaner.master.web;
