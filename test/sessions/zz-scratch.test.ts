import { openTestDatabase } from '../helpers/db';
it('scratch', async () => {
  const t = await openTestDatabase();
  const c = t.db.collection<any>('sessions');
  await c.insertOne({ _id: 's', agents: {}, updated_at: new Date() });
  const tryIt = async (name: string, f: () => Promise<unknown>) => {
    try { console.log(name, JSON.stringify(await f())); } catch (e: any) { console.log(name, 'ERROR', e.code, e.message); }
  };
  await tryIt('bsonSize', () => c.find({ _id: 's', $expr: { $lte: [{ $bsonSize: '$$ROOT' }, 100] } }).toArray());
  await tryIt('pipeline set dotted', () => c.updateOne({ _id: 's' }, [{ $set: { 'agents.a': { $mergeObjects: ['$agents.a', { x: 1, messages: { $ifNull: ['$agents.a.messages', []] } }] } } }]));
  await tryIt('read', () => c.findOne({ _id: 's' }));
  await t.close();
});
