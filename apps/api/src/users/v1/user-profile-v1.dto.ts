import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MEMBER_ROLES, type MemberRole } from '#auth';

export class UserProfileDto {
  @ApiProperty({ example: 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  user_id!: string;

  @ApiProperty({
    example: 'analyst_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'The same person as a member of the organisation (GET /v2/analysts/{analyst_id})',
  })
  analyst_id!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;

  @ApiProperty({ example: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  organization_id!: string;

  @ApiPropertyOptional({ description: 'Only when the token also carries the `email` scope' })
  email?: string;

  @ApiProperty({
    enum: MEMBER_ROLES,
    isArray: true,
    example: ['analyst'],
    description:
      '`admin` runs the organisation; `analyst` does blind work (/v2/assignments); `judge` ranks it (/v2/judging-tasks)',
  })
  roles!: MemberRole[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}
