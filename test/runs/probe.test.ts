import { openTestDatabase } from '../helpers/db';

it('probe', async () => {
  const t = await openTestDatabase();
  const c = t.db.collection('tasks');
  await c.insertOne({ taskId: 'a', goal: 'x' });
  const next = { $add: [{ $ifNull: [{ $max: '$actions.iteration' }, -1] }, 1] };
  const out: any[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await c.findOneAndUpdate(
      { taskId: 'a', ...(i === 2 ? { $expr: { $eq: [next, 2] } } : {}) },
      [{ $set: { actions: { $concatArrays: [{ $ifNull: ['$actions', []] }, [{ $mergeObjects: [{ $literal: { mode: 'fast', timestamp: new Date(), tool_calls: [{ name: 'x', args: { a: '$b', n: { c: 1 } } }] } }, { iteration: next }] }]] },
        run: { stuck: { $add: [{ $ifNull: ['$run.stuck', 0] }, 1] }, f: [{ key: { $literal: '$k' }, streak: { $add: [1, { $ifNull: [{ $first: { $map: { input: { $filter: { input: { $ifNull: ['$run.f', []] }, cond: { $eq: ['$$this.key', '$k'] } } }, in: '$$this.streak' } } }, 0] }] } }] } } }],
      { returnDocument: 'after', projection: { _id: 0, actions: { $slice: -1 }, run: 1 } },
    );
    out.push(r);
  }
  const failed = await c.findOneAndUpdate({ taskId: 'a', $expr: { $eq: [next, 7] } }, { $set: { x: 1 } });
  out.push({ failed });
  const agg = await c.aggregate([{ $match: { taskId: { $in: ['a'] } } }, { $project: { _id: 0, taskId: 1, actions: { $slice: [{ $sortArray: { input: { $filter: { input: { $ifNull: ['$actions', []] }, as: 'a', cond: { $gte: ['$$a.iteration', 1] } } }, sortBy: { iteration: 1 } } }, 5] } } }]).toArray();
  out.push(agg);
  const agg2 = await c.aggregate([{ $match: { taskId: 'a' } }, { $project: { _id: 0, actions: { $map: { input: '$actions', as: 'a', in: { iteration: '$$a.iteration', tool_calls: { $map: { input: '$$a.tool_calls', as: 'c', in: { name: '$$c.name', args: '$$c.args' } } } } } } } }]).toArray();
  out.push(agg2);
  await c.updateOne({ taskId: 'a', 'actions.iteration': 1 }, { $set: { 'actions.$.synthesis': 'S', 'actions.$.tool_calls.0.insights': 'I' } });
  await c.updateOne({ taskId: 'a' }, { $set: { 'actions.$[a].learning': 'L' } }, { arrayFilters: [{ 'a.iteration': 2 }] });
  out.push(await c.findOne({ taskId: 'a' }, { projection: { _id: 0, 'actions.iteration': 1, 'actions.synthesis': 1, 'actions.learning': 1, 'actions.tool_calls.insights': 1 } }));
  console.log(JSON.stringify(out, null, 1));
  await t.close();
});
