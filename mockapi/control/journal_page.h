/* GET /mockapi/v1/requests?format=html: the journal as the report page
 * nodelet-scenario --html writes (<nodelet/timeline.h>, one renderer in
 * client/core), for a person to look at in a browser. */
#ifndef MOCK_JOURNAL_PAGE_H
#define MOCK_JOURNAL_PAGE_H

#include <stdint.h>

#include "core/request.h"
#include "journal.h"
#include "storage/store.h"

/* Answer the page of the entries after since, with every Node's conditions
 * at their lastTransitionTime: 200 text/html, or a 500 Status when out of
 * memory. */
void mock_journal_page(mock_response *resp, mock_journal *j, mock_store *store, uint64_t since);

#endif
