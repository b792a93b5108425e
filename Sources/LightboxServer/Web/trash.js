// Recently Deleted as Photos shows it: how long each item has before it goes for good (a badge
// on its tile), and the album's own actions in the header: Restore all, and Empty (asked first,
// since it cannot be undone). Restoring all can be undone (deleted again).
import { inBatches, items as counted, postJSON, request } from './api.js';
import { refresh, setRetention } from './grid.js';
import { toast } from './toast.js';

const restoreAll = document.getElementById('restore-all');
const emptyTrash = document.getElementById('empty-trash');

// Every item in Recently Deleted, a page at a time.
async function trashedIds() {
  const ids = [];
  let after = null;
  do {
    const page = await (await request('/api/trash?limit=500' + (after ? '&after=' + encodeURIComponent(after) : ''))).json();
    ids.push(...page.assets.map(asset => asset.localIdentifier));
    after = page.next || null;
  } while (after);
  return ids;
}

// Shows or hides the header's actions, and reads how long items are kept.
export async function showTrashActions(shown) {
  restoreAll.hidden = !shown;
  emptyTrash.hidden = !shown;
  if (!shown) return;
  const page = await (await request('/api/trash?limit=1')).json();
  setRetention(page.retentionDays);
}

restoreAll.addEventListener('click', async () => {
  try {
    const ids = await trashedIds();
    if (!ids.length) return;
    await inBatches(ids, batch => postJSON('/api/assets/restore', { assets: batch }));
    await refresh();
    toast(counted(ids.length) + ' restored.', async () => {
      await inBatches(ids, batch => postJSON('/api/assets/delete', { assets: batch }));
      await refresh();
    });
  } catch (failure) {
    toast(failure.message);
  }
});

emptyTrash.addEventListener('click', async () => {
  try {
    const count = (await trashedIds()).length;
    if (!count || !confirm('Delete ' + counted(count) + ' for good? This cannot be undone.')) return;
    const purged = (await (await request('/api/trash', { method: 'DELETE' })).json()).purged;
    await refresh();
    toast(counted(purged.length) + ' deleted for good.');
  } catch (failure) {
    toast(failure.message);
  }
});
