/* SPDX-License-Identifier: MIT */
/* The loader thread: loads every rank of the app's capture(s) (CSV tables first, then
 * traces), runs the analysis with each rank's timeline index built as soon as its events
 * are classified, compares in compare mode, and publishes it all at once (app->pub, with
 * release semantics). It never calls curses. A directory of digests is published as it
 * was read. */
#ifndef ASCPROF_LOADER_H
#define ASCPROF_LOADER_H

#include "app.h"

/* The thread's body (pthread_create's start routine, or called directly when no thread
 * can be made): arg is the struct app, borrowed (the app waits for the thread, or the
 * process ends first). Returns NULL. */
void *loader_main(void *arg);
/* Frees what the loader published for app (pub, owned by the app; NULL: nothing). */
void loader_free_published(struct app *app, struct published *pub);

#endif
