import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { ScimGroupEntity } from './scim-group.entity.js';

/** A person's membership of a SCIM group. */
@Entity({ name: 'scim_group_members' })
export class ScimGroupMemberEntity {
  @ForeignKey(() => ScimGroupEntity, { name: 'FK_scim_group_members_group', onDelete: 'CASCADE' })
  @PrimaryColumn({
    name: 'group_id',
    type: 'uuid',
    primaryKeyConstraintName: 'PK_scim_group_members',
  })
  groupId!: string;

  @ForeignKey('users', { name: 'FK_scim_group_members_user', onDelete: 'CASCADE' })
  @Index('scim_group_members_user_idx')
  @PrimaryColumn({
    name: 'user_id',
    type: 'uuid',
    primaryKeyConstraintName: 'PK_scim_group_members',
  })
  userId!: string;
}
