import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { ForgetScope } from './forget.input';
import { ForgetReport } from './forget.type';

@Resolver()
export class ForgetResolver {
  @Authorized('admin')
  @Mutation(() => ForgetReport, {
    description:
      "Admin: erases everything of one end user, session or agent in the key's tenant: every collection, the search " +
      'spaces, idempotency records, history and what was learned only from it; on the embedded engine, the files ' +
      'under DATA_DIR too. Irreversible; `dryRun: true` only counts. See docs/lifecycle.md for what stays.',
  })
  forget(
    @Arg('scope', () => ForgetScope) scope: ForgetScope,
    @Arg('dryRun', { defaultValue: false }) dryRun: boolean,
    @Ctx() ctx: Context,
  ): Promise<ForgetReport> {
    return ctx.services.forget.forget(scope, dryRun);
  }
}
