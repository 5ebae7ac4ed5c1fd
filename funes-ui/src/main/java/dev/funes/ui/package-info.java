/**
 * A local web page over a Funes store ({@link dev.funes.ui.UiServer}): search, a hit's log
 * context, sessions, why, an overview with plots, and forgetting when allowed. docs/UI.md
 * describes the pages and the security model.
 */
package dev.funes.ui;
