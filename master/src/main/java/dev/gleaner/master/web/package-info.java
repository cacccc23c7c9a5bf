/**
 * The master's read-only web page: {@link dev.gleaner.master.web.StatusJson} writes what
 * {@code GET /api/status} answers, in the JSON shape of {@link dev.gleaner.master.web.StatusMaps} (which
 * {@code gleaner status --json} writes too), {@link dev.gleaner.master.web.WebAssets} holds the page and the
 * library files it loads, all from the master's jar. Used by {@code net}, which routes requests and
 * decides who may see them; uses {@code control}'s status. Nothing here imports {@code net}.
 */
package dev.gleaner.master.web;
