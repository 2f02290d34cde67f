import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UserProfileDto {
  @ApiProperty({ example: 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  user_id!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;

  @ApiProperty({ example: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  organization_id!: string;

  @ApiPropertyOptional({ description: 'Only when the token also carries the `email` scope' })
  email?: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}
